import { Accounts1732230000000 } from './1732230000000-accounts';
import { InstallationSettings1732230000100 } from './1732230000100-installation-settings';
import { WorkItems1732240000000 } from './1732240000000-work-items';
import { Outbox1732240000001 } from './1732240000001-outbox';

/** Every migration, oldest first. A new one is added here in one line. */
export const ALL_MIGRATIONS = [
  Accounts1732230000000,
  InstallationSettings1732230000100,
  WorkItems1732240000000,
  Outbox1732240000001,
];
