export * from './bake-args.js';
export * from './bake.js';
export * from './context.js';
export * from './summary.js';
