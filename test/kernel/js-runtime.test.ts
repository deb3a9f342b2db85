import { describe, expect, it } from 'vitest';
import { currentRuntime, runtimeLabel } from '../../src/kernel/js-runtime.js';

describe('the runtime a process runs on', () => {
  it('is Node.js here, with the version process.version gives', () => {
    expect(currentRuntime()).toEqual({ name: 'Node.js', version: process.version });
    expect(runtimeLabel()).toBe(`Node.js ${process.version}`);
  });

  it('is Bun or Deno by their own entry in process.versions, whatever Node.js line they follow', () => {
    expect(currentRuntime({ ...process.versions, node: '26.3.0', bun: '1.4.5' })).toEqual({ name: 'Bun', version: '1.4.5' });
    expect(currentRuntime({ ...process.versions, node: '26.3.0', deno: '2.9.6' })).toEqual({ name: 'Deno', version: '2.9.6' });
    expect(runtimeLabel({ name: 'Deno', version: '2.9.6' })).toBe('Deno 2.9.6');
  });
});
