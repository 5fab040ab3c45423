import {actionsIO} from '@remote-builder-actions/core/actions';
import {runPostStep, runStep} from '@remote-builder-actions/core';
import {Input} from './context.js';

const io = actionsIO();
void runStep(io, 'post', () => runPostStep({io}, {apiKeyInput: Input.ApiKey}));
