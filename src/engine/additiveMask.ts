// The additive attention mask's value at a hidden key: exp(-1e9 - max) is exactly 0 in float32, and the value is
// finite so that a row's max never turns NaN. Its own module so that kernels (kernels/webgpuSampling.ts) and
// layers.ts share it without an import cycle through layers.ts.
export const MASKED = -1e9;
