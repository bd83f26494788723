import { describe, expect, it } from 'vitest';
import { SWIFTSHADER_ICD, hardwareVulkanIcd, vulkanIcdToUse } from '../../src/engine/vulkanDriver';

/** A fake file system: folder → file names. */
const folders =
  (tree: Record<string, string[]>) =>
  (folder: string): string[] =>
    tree[folder] ?? [];

describe('hardwareVulkanIcd', () => {
  it("finds NVIDIA's manifest where NVIDIA's container runtime mounts it", () => {
    const list = folders({ '/usr/local/nvidia/share/vulkan/icd.d': ['nvidia_icd.json'] });
    expect(hardwareVulkanIcd(list)).toBe('/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json');
  });

  it('skips the CPU emulations (lavapipe, SwiftShader) and files that are not manifests', () => {
    const list = folders({
      '/usr/share/vulkan/icd.d': ['lvp_icd.x86_64.json', 'vk_swiftshader_icd.json', 'README', 'radeon_icd.x86_64.json'],
    });
    expect(hardwareVulkanIcd(list)).toBe('/usr/share/vulkan/icd.d/radeon_icd.x86_64.json');
  });

  it('takes the first folder the loader reads that holds one, and is null when none does', () => {
    const list = folders({ '/etc/vulkan/icd.d': ['nvidia_icd.json'], '/usr/share/vulkan/icd.d': ['intel_icd.json'] });
    expect(hardwareVulkanIcd(list)).toBe('/etc/vulkan/icd.d/nvidia_icd.json');
    expect(hardwareVulkanIcd(folders({ '/usr/share/vulkan/icd.d': ['lvp_icd.json'] }))).toBeNull();
  });
});

describe('vulkanIcdToUse', () => {
  const gpu = folders({ '/usr/share/vulkan/icd.d': ['nvidia_icd.json'] });
  const none = folders({});

  it("leaves the environment alone when the user named a driver, in either of the loader's variables", () => {
    expect(vulkanIcdToUse({ VK_ICD_FILENAMES: '/x.json' }, undefined, gpu)).toBeNull();
    expect(vulkanIcdToUse({ VK_DRIVER_FILES: '/y.json' }, '/z.json', gpu)).toBeNull();
  });

  it("prefers the caller's manifest, then a GPU's, then SwiftShader", () => {
    expect(vulkanIcdToUse({}, '/z.json', gpu)).toBe('/z.json');
    expect(vulkanIcdToUse({}, undefined, gpu)).toBe('/usr/share/vulkan/icd.d/nvidia_icd.json');
    expect(vulkanIcdToUse({}, undefined, none)).toBe(SWIFTSHADER_ICD);
  });
});
