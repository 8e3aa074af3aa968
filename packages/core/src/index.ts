export * from './clock.js';
export * from './codec.js';
export * from './context.js';
export * from './errors.js';
export * from './hash.js';
export * from './membership.js';
export * from './ring.js';
export * from './versions.js';
