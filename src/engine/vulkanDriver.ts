// Which Vulkan driver Dawn (the npm `webgpu` package) uses when the lab's webgpu backend runs in Node. Dawn asks the
// Vulkan loader, and the loader reads driver manifests (ICD JSON files). A machine with a GPU has its vendor's
// manifest in one of the folders below; a machine without one can still run webgpu on SwiftShader, the CPU
// emulation Chromium ships. The lab used to point the loader at SwiftShader whenever VK_ICD_FILENAMES was unset,
// which sent a machine with a GPU to the emulation too. Now a GPU's manifest wins, SwiftShader is the fallback, and
// VK_ICD_FILENAMES / VK_DRIVER_FILES set by the user are left alone.

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
 * The first GPU driver manifest in `folders` (a path), or null when there is none. `list(folder)` returns the file
 * names in a folder, or [] when it does not exist.
 */
export function hardwareVulkanIcd(
  list: (folder: string) => readonly string[],
  folders: readonly string[] = VULKAN_ICD_FOLDERS,
): string | null {
  for (const folder of folders) {
    const names = [...list(folder)].filter((n) => n.endsWith('.json') && !SOFTWARE_ICD.test(n)).sort();
    if (names.length > 0) return `${folder}/${names[0]}`;
  }
  return null;
}

/**
 * The manifest to put in VK_ICD_FILENAMES, or null to leave the environment as it is: null when the user set
 * VK_ICD_FILENAMES or VK_DRIVER_FILES; else `requested` (the caller's option), a GPU's manifest, or SwiftShader.
 */
export function vulkanIcdToUse(
  env: Readonly<Record<string, string | undefined>>,
  requested: string | undefined,
  list: (folder: string) => readonly string[],
): string | null {
  if (env.VK_ICD_FILENAMES !== undefined || env.VK_DRIVER_FILES !== undefined) return null;
  return requested ?? hardwareVulkanIcd(list) ?? SWIFTSHADER_ICD;
}
