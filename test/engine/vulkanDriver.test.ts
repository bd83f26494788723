import { describe, expect, it } from 'vitest';
import { SWIFTSHADER_ICD, hardwareVulkanIcds, vulkanIcdToUse } from '../../src/engine/vulkanDriver';

/** A fake file system: folder → file names. */
const folders =
  (tree: Record<string, string[]>) =>
  (folder: string): string[] =>
    tree[folder] ?? [];

const CHROMIUM = { '/usr/lib/chromium': ['chromium', 'vk_swiftshader_icd.json'] };

describe('hardwareVulkanIcds', () => {
  it("finds NVIDIA's manifest where NVIDIA's container runtime mounts it", () => {
    const list = folders({ '/usr/local/nvidia/share/vulkan/icd.d': ['nvidia_icd.json'] });
    expect(hardwareVulkanIcds(list)).toEqual(['/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json']);
  });

  it('skips the CPU emulations (lavapipe, SwiftShader) and files that are not manifests', () => {
    const list = folders({
      '/usr/share/vulkan/icd.d': ['lvp_icd.x86_64.json', 'vk_swiftshader_icd.json', 'README', 'radeon_icd.x86_64.json'],
    });
    expect(hardwareVulkanIcds(list)).toEqual(['/usr/share/vulkan/icd.d/radeon_icd.x86_64.json']);
  });

  it('lists the folders in the order the loader reads them, each by name, and nothing when none holds one', () => {
    const list = folders({
      '/etc/vulkan/icd.d': ['nvidia_icd.json'],
      '/usr/share/vulkan/icd.d': ['radeon_icd.json', 'intel_icd.json'],
    });
    expect(hardwareVulkanIcds(list)).toEqual([
      '/etc/vulkan/icd.d/nvidia_icd.json',
      '/usr/share/vulkan/icd.d/intel_icd.json',
      '/usr/share/vulkan/icd.d/radeon_icd.json',
    ]);
    expect(hardwareVulkanIcds(folders({ '/usr/share/vulkan/icd.d': ['lvp_icd.json'] }))).toEqual([]);
  });
});

describe('vulkanIcdToUse', () => {
  const gpu = folders({ '/usr/share/vulkan/icd.d': ['nvidia_icd.json'], ...CHROMIUM });

  it("leaves the environment alone when the user named a driver, in either of the loader's variables", () => {
    expect(vulkanIcdToUse({ VK_ICD_FILENAMES: '/x.json' }, undefined, gpu)).toBeNull();
    expect(vulkanIcdToUse({ VK_DRIVER_FILES: '/y.json' }, '/z.json', gpu)).toBeNull();
  });

  it("takes the caller's manifest as given", () => {
    expect(vulkanIcdToUse({}, '/z.json', gpu)).toBe('/z.json');
  });

  it('hands the loader the GPU manifests first and SwiftShader after them, so a GPU that fails still leaves one', () => {
    expect(vulkanIcdToUse({}, undefined, gpu)).toBe(`/usr/share/vulkan/icd.d/nvidia_icd.json:${SWIFTSHADER_ICD}`);
  });

  it('names SwiftShader alone on a machine without a GPU driver, and a GPU alone without Chromium', () => {
    expect(vulkanIcdToUse({}, undefined, folders(CHROMIUM))).toBe(SWIFTSHADER_ICD);
    expect(vulkanIcdToUse({}, undefined, folders({}))).toBe(SWIFTSHADER_ICD);
    const noChromium = folders({ '/usr/share/vulkan/icd.d': ['nvidia_icd.json'] });
    expect(vulkanIcdToUse({}, undefined, noChromium)).toBe('/usr/share/vulkan/icd.d/nvidia_icd.json');
  });
});
