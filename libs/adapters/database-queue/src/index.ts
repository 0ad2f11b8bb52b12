export * from './database-work-queue';
