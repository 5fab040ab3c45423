// First: starts the step's `buildx version` while the rest of the bundle loads (see early.ts).
import './early.js';
import {actionsIO} from '@remote-builder-actions/core/actions';
import {runHook} from '@remote-builder-actions/core/step';
import {bake} from './bake.js';

const io = actionsIO();
void runHook(io, 'main', signal => bake({io, signal}));
