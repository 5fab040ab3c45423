import * as core from '@actions/core';
export const info = (m: string): void => core.info(m);
