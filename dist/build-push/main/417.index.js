export const id = 417;
export const ids = [417];
export const modules = {

/***/ 44417:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   createProxyAgent: () => (/* binding */ createProxyAgent),
/* harmony export */   tunnelFailure: () => (/* binding */ tunnelFailure)
/* harmony export */ });
/* harmony import */ var undici__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(46752);
/* harmony import */ var _proxy_failure_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(43082);


/**
 * A CONNECT that did not give a tunnel: the proxy could not be reached, hung up, or answered `status`. Its
 * code is none of undici's "recoverable socket" codes, so undici fails the request instead of dialling again.
 */
class TunnelRefused extends Error {
    status;
    code = 'EPROXYTUNNEL';
    constructor(status, cause) {
        super(status === undefined ? 'no tunnel through the proxy' : `the proxy answered the CONNECT with ${status}`, {
            cause
        });
        this.status = status;
        this.name = 'TunnelRefused';
    }
}
/** The client undici's ProxyAgent sends its CONNECTs with: every failure, and every status but 200, is a TunnelRefused. */
class ProxyLeg extends undici__WEBPACK_IMPORTED_MODULE_0__.Pool {
    connect(options, callback) {
        if (callback)
            return super.connect(options, callback);
        return super.connect(options).then(answer => {
            if (answer.statusCode === 200)
                return answer;
            answer.socket.destroy();
            throw new TunnelRefused(answer.statusCode);
        }, (e) => {
            throw new TunnelRefused(undefined, e);
        });
    }
}
/**
 * undici's ProxyAgent for `proxy`: every request goes through a CONNECT tunnel (to http targets too, as
 * @actions/http-client does), with TLS over it to https targets, trusting `ca` instead of Node's store when
 * given. Tunnels are kept alive and reused. undici is given the proxy's origin and the Proxy-Authorization
 * value, never the URL with its credentials, so no error of its can quote them.
 */
function createProxyAgent(proxy, opts = {}) {
    return new undici__WEBPACK_IMPORTED_MODULE_0__.ProxyAgent({
        uri: proxy.origin,
        token: proxy.authorization,
        requestTls: opts.ca === undefined ? undefined : { ca: opts.ca },
        clientFactory: (origin, o) => new ProxyLeg(origin, o)
    });
}
/**
 * The ProxyError of a request through `createProxyAgent` that failed before its tunnel (and, for https, the
 * TLS handshake over it) was up: nothing reached `target` (host:port). `e` is what undici reported.
 */
function tunnelFailure(proxy, host, target, secure, e) {
    if (e instanceof TunnelRefused) {
        return e.status === undefined ? (0,_proxy_failure_js__WEBPACK_IMPORTED_MODULE_1__/* .connectFailure */ .vZ)(proxy, target, e.cause) : (0,_proxy_failure_js__WEBPACK_IMPORTED_MODULE_1__/* .refused */ .J5)(proxy, host, target, e.status);
    }
    const err = (e ?? {});
    const code = typeof err.code === 'string' ? err.code : '';
    // The handshake with the target fails with node:tls's error (a name mismatch wrapped by undici).
    if (code === 'UND_ERR_PRX_TLS' && err.cause instanceof Error)
        return (0,_proxy_failure_js__WEBPACK_IMPORTED_MODULE_1__/* .tlsFailure */ .kL)(proxy, target, err.cause);
    if (secure && code !== '' && !code.startsWith('UND_ERR_'))
        return (0,_proxy_failure_js__WEBPACK_IMPORTED_MODULE_1__/* .tlsFailure */ .kL)(proxy, target, err);
    return (0,_proxy_failure_js__WEBPACK_IMPORTED_MODULE_1__/* .connectFailure */ .vZ)(proxy, target, e);
}


/***/ })

};
