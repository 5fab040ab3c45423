import {hello} from '@remote-builder-actions/core';
import {info} from '@remote-builder-actions/core/actions';
info(hello());
