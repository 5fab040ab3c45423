import {actionsIO} from '@remote-builder-actions/core/actions';
import {runStep} from '@remote-builder-actions/core';
import {configure} from './configure.js';

const io = actionsIO();
void runStep(io, 'main', signal => configure({io, signal}));
