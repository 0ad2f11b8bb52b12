import type { EventType } from '../api/types';
import { exampleFromSchema } from '../catalog/schema-example';

export const MAX_EVENTS = 50;

/**
 * The catalog's event types, grouped as the catalog groups them, as checkboxes: each with its
 * description and an example payload generated from its JSON Schema.
 */
export function EventPicker({ types, selected, onChange }: { types: EventType[]; selected: string[]; onChange: (events: string[]) => void }) {
  const groups = groupTypes(types);
  const chosen = new Set(selected);
  const full = chosen.size >= MAX_EVENTS;
  const toggle = (type: string, on: boolean) => onChange(on ? [...selected, type] : selected.filter((t) => t !== type));
  const toggleGroup = (members: EventType[], on: boolean) => {
    const names = members.map((m) => m.type);
    const rest = selected.filter((t) => !names.includes(t));
    onChange(on ? [...rest, ...names].slice(0, MAX_EVENTS) : rest);
  };

  return (
    <fieldset class="event-picker" aria-describedby="event-count">
      <legend>Events</legend>
      <p id="event-count" class="hint" aria-live="polite">
        {chosen.size} selected (1 to {MAX_EVENTS}).
      </p>
      <div class="event-groups">
        {groups.map(([group, members]) => {
          const all = members.every((m) => chosen.has(m.type));
          const groupId = `group-${group.replace(/\W+/g, '-')}`;
          return (
            <fieldset key={group} class="event-group">
              <legend>{group}</legend>
              <label class="check all">
                <input type="checkbox" id={groupId} checked={all} onChange={(e) => toggleGroup(members, e.currentTarget.checked)} />
                All {group} events
              </label>
              {members.map((m) => {
                const describedBy = `type-${m.type.replace(/\W+/g, '-')}`;
                return (
                  <div key={m.type} class="event-type">
                    <label class="check">
                      <input
                        type="checkbox"
                        name="events"
                        value={m.type}
                        checked={chosen.has(m.type)}
                        disabled={full && !chosen.has(m.type)}
                        onChange={(e) => toggle(m.type, e.currentTarget.checked)}
                        aria-describedby={describedBy}
                      />
                      <span class="mono">{m.type}</span>
                    </label>
                    <p class="hint" id={describedBy}>
                      {m.description}
                    </p>
                    <details class="example">
                      <summary>
                        Example payload<span class="visually-hidden"> of {m.type}</span>
                      </summary>
                      <pre class="body" aria-label={`Example data of ${m.type}`}>
                        {JSON.stringify(exampleFromSchema(m.schema), null, 2)}
                      </pre>
                    </details>
                  </div>
                );
              })}
            </fieldset>
          );
        })}
      </div>
    </fieldset>
  );
}

/** Groups in the catalog's order, each with its types in the catalog's order. */
export function groupTypes(types: EventType[]): Array<[string, EventType[]]> {
  const groups = new Map<string, EventType[]>();
  for (const t of types) groups.set(t.group, [...(groups.get(t.group) ?? []), t]);
  return [...groups.entries()];
}
