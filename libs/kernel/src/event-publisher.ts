/**
 * The port through which any module emits an account event (CONTRACT §4 intake). Called inside
 * a UnitOfWork, the event and its deliveries commit in that same transaction.
 */
export interface NewEvent {
  accountId: number;
  type: string;
  data: Record<string, unknown>;
  /** `evt_...`; a repeated id is accepted once. Generated when absent. */
  id?: string;
  /** Unix seconds; now when absent. */
  created?: number;
}

export abstract class EventPublisher {
  /** Validates, stores and fans out the events; returns their ids in order. */
  abstract publish(events: NewEvent[]): Promise<string[]>;
}
