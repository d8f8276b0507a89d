export { createKernel, type Kernel, type KernelOptions, type ListenOptions } from './kernel.ts';
export { kernelOptionsFromEnv } from './env.ts';
