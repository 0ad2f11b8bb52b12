import { UnitOfWork, UnitOfWorkOptions } from '../../../kernel/src';
import { TypeormDatabase } from './typeorm-database';

export class TypeormUnitOfWork extends UnitOfWork {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  run<T>(work: () => Promise<T>, options?: UnitOfWorkOptions): Promise<T> {
    return this.db.transaction(work, options);
  }

  afterCommit(callback: () => void | Promise<void>): void {
    this.db.afterCommit(callback);
  }

  inTransaction(): boolean {
    return this.db.inTransaction();
  }
}
