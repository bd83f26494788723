// Which Vulkan drivers Dawn (the npm `webgpu` package) sees when the lab's webgpu backend runs in Node. Dawn asks
// the Vulkan loader, and the loader reads driver manifests (ICD JSON files). A machine with a GPU has its vendor's
// manifest in one of the folders below; a machine without one can still run webgpu on SwiftShader, the CPU
// emulation Chromium ships. The lab used to point the loader at SwiftShader alone whenever VK_ICD_FILENAMES was
// unset, which sent a machine with a GPU to the emulation too. Now the loader gets every GPU manifest found and
// SwiftShader after them: Dawn prefers a GPU adapter (the backend asks for high-performance), and SwiftShader
// answers when no GPU does. A manifest whose driver fails to load, or finds no device, is skipped by the loader
// (it prints a warning). VK_ICD_FILENAMES / VK_DRIVER_FILES set by the user are left alone.

/** Chromium's SwiftShader manifest (Debian's chromium package). */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/**
 * Folders the Vulkan loader reads on Linux (XDG data and config folders), and the one NVIDIA's container runtime
 * mounts, which the loader does not read by itself.
 */
export const VULKAN_ICD_FOLDERS = [
  '/etc/vulkan/icd.d',
  '/usr/local/share/vulkan/icd.d',
  '/usr/share/vulkan/icd.d',
  '/usr/local/nvidia/share/vulkan/icd.d',
];

/** Manifests of drivers that emulate a GPU on the CPU: Mesa's lavapipe, SwiftShader. */
const SOFTWARE_ICD = /lvp|lavapipe|swiftshader|llvmpipe/i;

/**
 * Every GPU driver manifest in `folders` (paths, in folder order, then by name). `list(folder)` returns the file
 * names in a folder, or [] when it does not exist.
 */
export function hardwareVulkanIcds(
  list: (folder: string) => readonly string[],
  folders: readonly string[] = VULKAN_ICD_FOLDERS,
): string[] {
  return folders.flatMap((folder) =>
    [...list(folder)]
      .filter((n) => n.endsWith('.json') && !SOFTWARE_ICD.test(n))
      .sort()
      .map((n) => `${folder}/${n}`),
  );
}

/**
 * The value to put in VK_ICD_FILENAMES (manifests separated by ':'), or null to leave the environment as it is:
 * null when the user set VK_ICD_FILENAMES or VK_DRIVER_FILES; else `requested` (the caller's option); else every
 * GPU manifest found, then SwiftShader's where Chromium is installed (SwiftShader's path alone when nothing is).
 */
export function vulkanIcdToUse(
  env: Readonly<Record<string, string | undefined>>,
  requested: string | undefined,
  list: (folder: string) => readonly string[],
): string | null {
  if (env.VK_ICD_FILENAMES !== undefined || env.VK_DRIVER_FILES !== undefined) return null;
  if (requested !== undefined) return requested;
  const slash = SWIFTSHADER_ICD.lastIndexOf('/');
  const swiftshader = list(SWIFTSHADER_ICD.slice(0, slash)).includes(SWIFTSHADER_ICD.slice(slash + 1));
  const icds = [...hardwareVulkanIcds(list), ...(swiftshader ? [SWIFTSHADER_ICD] : [])];
  return icds.length > 0 ? icds.join(':') : SWIFTSHADER_ICD;
}
