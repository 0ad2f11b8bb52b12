export * from './nats-work-queue';
