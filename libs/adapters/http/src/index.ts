export * from './undici-outbound-http';
export * from './classify-transport-error';
export * from './address-guarded-lookup';
export * from './address-guarded-connector';
export * from './blocked-address-error';
