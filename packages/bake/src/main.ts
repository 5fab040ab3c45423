import {actionsIO} from '@remote-builder-actions/core/actions';
import {runStep} from '@remote-builder-actions/core';
import {bake} from './bake.js';

const io = actionsIO();
void runStep(io, 'main', signal => bake({io, signal}));
