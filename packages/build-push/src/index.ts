export * from './build-args.js';
export * from './build-push.js';
export * from './cleanup.js';
export * from './context.js';
export * from './summary.js';
