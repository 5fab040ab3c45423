import {actionsIO} from '@remote-builder-actions/core/actions';
import {runStep} from '@remote-builder-actions/core';
import {cleanup} from './cleanup.js';

const io = actionsIO();
void runStep(io, 'post', () => cleanup({io}));
