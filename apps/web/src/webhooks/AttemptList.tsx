import type { DeliveryAttempt } from '../api/types';
import { Time } from '../components/Time';

/** Every attempt of a delivery: when, how long, the HTTP status or the error, and the response body. */
export function AttemptList({ attempts }: { attempts: DeliveryAttempt[] }) {
  if (attempts.length === 0) return null;
  return (
    <ol class="attempts">
      {attempts.map((attempt, index) => (
        <li key={index} class="attempt">
          <p>
            <strong>Attempt {index + 1}</strong>: <Time iso={attempt.at} /> · {attempt.durationMs} ms ·{' '}
            {attempt.httpStatus !== null ? (
              <span class={attempt.httpStatus >= 200 && attempt.httpStatus < 300 ? 'ok' : 'ko'}>HTTP {attempt.httpStatus}</span>
            ) : (
              <span class="ko">error: {attempt.error ?? 'unknown'}</span>
            )}
          </p>
          {attempt.responseBody ? (
            <>
              <p class="hint">Response body (first 4 KB)</p>
              <pre class="body">{attempt.responseBody}</pre>
            </>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
