import { describe, expect, it } from 'vitest';
import { overrideLines } from '../../src/app/overrideLines';

describe('override lines from a form text area', () => {
  it('keeps each key=value line trimmed, in order, and skips blank and # comment lines', () => {
    const text = '  student.schedule=never \n\n# a comment\n   \nstudent.lambdaOpd=0.2\r\n  # indented comment';
    expect(overrideLines(text)).toEqual(['student.schedule=never', 'student.lambdaOpd=0.2']);
  });

  it('gives no lines for an empty text area', () => {
    expect(overrideLines('')).toEqual([]);
  });

  it('keeps a # inside a value (only a leading # comments a line out)', () => {
    expect(overrideLines('env.name=shell#1')).toEqual(['env.name=shell#1']);
  });
});
