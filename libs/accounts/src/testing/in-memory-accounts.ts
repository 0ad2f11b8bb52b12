import { Account } from '../account';
import { AccountRepository } from '../account.repository';

export class InMemoryAccountRepository extends AccountRepository {
  readonly rows: Account[] = [];

  async create(name: string, createdAt: Date): Promise<Account> {
    const account = { id: this.rows.length + 1, name, createdAt };
    this.rows.push(account);
    return account;
  }
  async findById(id: number): Promise<Account | null> {
    return this.rows.find((a) => a.id === id) ?? null;
  }
}
