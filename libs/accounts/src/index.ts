export * from './account';
export * from './account.repository';
export * from './api-key';
export * from './accounts.service';
export * from './accounts.module';
