import { describe, expect, it } from 'vitest';
import { assertNever, backendChain, toWireError } from '../../src/app/worker/protocol';
import { BackendUnavailableError } from '../../src/engine/backend';

describe('the worker protocol', () => {
  it('falls back from the chosen backend to the slower ones, fastest first', () => {
    expect(backendChain('auto')).toEqual(['webgpu', 'webgl', 'wasm', 'cpu']);
    expect(backendChain('webgl')).toEqual(['webgl', 'wasm', 'cpu']);
    expect(backendChain('wasm')).toEqual(['wasm', 'cpu']);
    expect(backendChain('cpu')).toEqual(['cpu']);
  });

  it('sends errors as {name, message} only — no stack, no prototype', () => {
    const wire = toWireError(new BackendUnavailableError('webgpu', 'no adapter'));
    // a user error keeps its kind (core/errors.ts), so the page can say "fix your input" rather than "a defect"
    expect(wire).toEqual({
      name: 'BackendUnavailableError',
      message: "backend 'webgpu' is not available: no adapter",
      kind: 'backend',
    });
    expect(Object.keys(wire)).toEqual(['name', 'message', 'kind']);
    const defect = toWireError(new TypeError('x is undefined'));
    expect(defect).toMatchObject({ name: 'TypeError', message: 'x is undefined' });
    expect(defect.kind).toBeUndefined();
    expect(toWireError('plain string')).toEqual({ name: 'Error', message: 'plain string' });
    expect(structuredClone(wire)).toEqual(wire);
  });

  it('throws on a message type a switch does not handle', () => {
    expect(() => assertNever({ type: 'bogus' } as never, 'request')).toThrow('unhandled request: {"type":"bogus"}');
  });
});
