import { describe, expect, it } from 'vitest';
import { webgpuAdapterLine } from '../../cli/experimentRunner';

// What Dawn reported on the two machines the lab has run webgpu on (vendor, device, description as GPUAdapterInfo
// gives them; the storage-buffer limits are the ones each adapter offered).
const h200 = {
  vendor: 'nvidia',
  device: 'nvidia-h200',
  architecture: '',
  description: 'NVIDIA: 580.159.04 580.159.4.0',
  isFallbackAdapter: false,
  maxStorageBuffersPerShaderStage: 16,
};
const swiftshader = {
  vendor: 'google',
  device: 'swiftshader-device-subzero-',
  architecture: 'swiftshader',
  description: 'SwiftShader driver 5.0.0',
  isFallbackAdapter: false,
  maxStorageBuffersPerShaderStage: 12,
};

describe('webgpuAdapterLine', () => {
  it('names a GPU adapter with no warning', () => {
    expect(webgpuAdapterLine(h200)).toBe('webgpu adapter: nvidia nvidia-h200 (NVIDIA: 580.159.04 580.159.4.0)');
  });

  it('warns that SwiftShader or any fallback adapter is a CPU emulation, and says how to pick a GPU', () => {
    for (const info of [swiftshader, { ...h200, isFallbackAdapter: true }]) {
      const line = webgpuAdapterLine(info);
      expect(line).toContain('a CPU emulation, slower than --backend wasm');
      expect(line).toContain('VK_ICD_FILENAMES');
    }
    expect(webgpuAdapterLine(swiftshader)).toMatch(
      /^webgpu adapter: google swiftshader-device-subzero- swiftshader \(SwiftShader driver 5\.0\.0\) — /,
    );
  });
});
