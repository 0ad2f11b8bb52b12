import { Accounts1732230000000 } from './1732230000000-accounts';

/** Every migration, oldest first. A new one is added here in one line. */
export const ALL_MIGRATIONS = [
  Accounts1732230000000,
];
