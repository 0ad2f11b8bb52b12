#!/usr/bin/env node
'use strict';
/**
 * The image's HEALTHCHECK, for either role: healthy when this container's /health answers 200,
 * on PORT (the API) or on DISPATCHER_HEALTH_PORT (a dispatcher run alone). Each role opens only
 * its own port, so whichever answers is the role's own.
 */
const ports = [process.env.PORT || '3000', process.env.DISPATCHER_HEALTH_PORT].filter(Boolean);

const probe = (port) =>
  fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2500) }).then((response) => (response.ok ? port : Promise.reject(new Error(String(response.status)))));

Promise.any(ports.map(probe)).then(
  () => process.exit(0),
  () => process.exit(1),
);
