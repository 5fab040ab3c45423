import {actionsIO} from '@remote-builder-actions/core/actions';
import {runPostStep, runHook} from '@remote-builder-actions/core/step';
import {Input} from './context.js';

const io = actionsIO();
void runHook(io, 'post', () => runPostStep({io}, {apiKeyInput: Input.ApiKey}));
