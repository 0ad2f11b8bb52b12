import { clearRows } from './fault-table';

/** Jest globalSetup of the `faults` project: the table starts empty for this run. */
export default function setUp(): void {
  clearRows();
}
