/**
 * How often a page with no stream polls. Its own module, free of React and the DOM, so that the
 * browser test proving a stream stops the polling reads the same number.
 */
export const POLL_MS = 3000;
