export {
  builderConnector,
  builderRoute,
  tunnelConnector,
  type BuilderConnect,
  type BuilderConnectorOpts,
  type BuilderRoute
} from './builder-connector.js';
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
export {authority, openTunnel, type TunnelOpts} from './proxy-tunnel.js';
export {HttpsTunnelAgent, HttpTunnelAgent, type TunnelAgentOpts, type TunnelRequestOptions} from './tunnel-agent.js';
