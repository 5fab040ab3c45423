export * from './build-args.js';
export * from './build-push.js';
export * from './context.js';
export * from './summary.js';
