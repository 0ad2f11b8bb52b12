/**
 * The API key of the signed-in account, kept in sessionStorage only: it lives as long as the tab,
 * is never written to localStorage, a cookie or a URL, and is gone when the tab closes.
 */
const KEY = 'webhook-dashboard.api-key';

export function storedApiKey(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeApiKey(apiKey: string): void {
  sessionStorage.setItem(KEY, apiKey);
}

export function forgetApiKey(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // storage unavailable: nothing was kept
  }
}
