export {
  bypassesProxy,
  isLoopbackHost,
  proxyFor,
  ProxyConfigError,
  type ProxyChoice,
  type ProxyEnv,
  type ProxyVariable
} from './proxy-env.js';
export {ProxyError, type ProxyErrorOpts, type ProxyFailure} from './proxy-error.js';
