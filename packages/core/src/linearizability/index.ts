export * from './checker.js';
export * from './register-model.js';
