export * from './acceptor.js';
export * from './ballot.js';
export * from './conditions.js';
export * from './expiry.js';
export * from './messages.js';
export * from './register.js';
export * from './transaction.js';
