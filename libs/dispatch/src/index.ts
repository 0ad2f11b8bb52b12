export * from './dispatch.module';
export * from './worker-host';
