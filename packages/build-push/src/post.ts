import {actionsIO} from '@remote-builder-actions/core/actions';
import {runBuildPostStep, runHook} from '@remote-builder-actions/core/step';
import {SUMMARY_INPUTS} from './summary.js';

const io = actionsIO();
void runHook(io, 'post', () => runBuildPostStep({io}, SUMMARY_INPUTS));
