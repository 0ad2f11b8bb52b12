import { ApiError } from '../api/client';

/** An API error in words: the contract's message, then its code and HTTP status. */
export function ErrorMessage({ error, context }: { error: unknown; context?: string }) {
  if (error === undefined || error === null) return null;
  const prefix = context ? `${context}: ` : '';
  if (error instanceof ApiError) {
    return (
      <p class="error" role="alert">
        {prefix}
        {error.message} <span class="error-code">({error.status > 0 ? `${error.code}, HTTP ${error.status}` : error.code})</span>
      </p>
    );
  }
  return (
    <p class="error" role="alert">
      {prefix}
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}
