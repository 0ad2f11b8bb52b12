export * from './account';
export * from './account.repository';
export * from './account-deletion';
export * from './account-deletion-finisher';
export * from './api-key';
export * from './key-use-recorder';
export * from './accounts.service';
export * from './accounts.module';
