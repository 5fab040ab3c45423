#!/usr/bin/env node
// The remote-builder CLI: loads the TypeScript entry through tsx's ESM loader (no build step).
import {register} from 'tsx/esm/api';

register();
await import('../src/main.ts');
