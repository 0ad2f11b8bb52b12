import type { DeliveryAttempt } from '../api/types';
import { Time } from '../components/Time';
import { visibleText } from '../components/visible-text';

/** Every attempt of a delivery: when, how long, the HTTP status or the error, the request headers sent and the response body. */
export function AttemptList({ attempts }: { attempts: DeliveryAttempt[] }) {
  if (attempts.length === 0) return <p class="hint">No attempts yet.</p>;
  return (
    <ol class="attempts">
      {attempts.map((attempt, index) => (
        <li key={index} class="attempt" aria-label={`Attempt ${index + 1}`}>
          <p>
            <strong>Attempt {index + 1}</strong>: <Time iso={attempt.at} /> · {attempt.durationMs} ms · <AttemptOutcome attempt={attempt} />
          </p>
          {attempt.requestHeaders ? <RequestHeaders n={index + 1} headers={attempt.requestHeaders} /> : null}
          {attempt.responseBody ? (
            <>
              <p class="hint">Response body (first 4 KB)</p>
              <pre class="body">{visibleText(attempt.responseBody)}</pre>
            </>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

export function AttemptOutcome({ attempt }: { attempt: DeliveryAttempt | undefined }) {
  if (!attempt) return <span>—</span>;
  if (attempt.httpStatus !== null) return <span class={attempt.httpStatus >= 200 && attempt.httpStatus < 300 ? 'ok' : 'ko'}>HTTP {attempt.httpStatus}</span>;
  return <span class="ko">error: {attempt.error ?? 'unknown'}</span>;
}

function RequestHeaders({ n, headers }: { n: number; headers: Record<string, string> }) {
  const names = Object.keys(headers).sort();
  return (
    <details class="request-headers" open>
      <summary>Request headers sent ({names.length})</summary>
      <table aria-label={`Request headers of attempt ${n}`}>
        <tbody>
          {names.map((name) => (
            <tr key={name}>
              <th scope="row" class="mono">
                {name}
              </th>
              <td class="mono">{headers[name]}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
