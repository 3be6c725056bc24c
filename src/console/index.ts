// The web console: its static files served at /ui/ and the login URL printed at start.
export { BUNDLE_FOLDER, findBundleDir, readAssets, type ConsoleAssets } from './assets.js';
export { CONSOLE_PATH, CONTENT_SECURITY_POLICY, isConsolePath, serveConsole, type ConsoleRequest, type ConsoleResponse } from './handler.js';

/** The URL a browser opens to log in: the token rides in the fragment, which is never sent to a server. */
export function consoleLoginUrl(serverUrl: string, token: string): string {
  return `${serverUrl}/ui/#token=${token}`;
}
