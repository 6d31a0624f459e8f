import { Component, type ReactNode } from 'react';

/**
 * A part of a page that failed to render shows `fallback` instead of taking the whole app with it:
 * React unmounts the root on an error no boundary catches, a blank screen. The usual cause is a
 * chunk loaded on demand that did not arrive (the network dropped, or a deploy replaced the hashed
 * files it names). `onRetry`, when given, runs when the browser comes back online, and the part is
 * drawn again; a `React.lazy` keeps its failed import, so the caller hands in a fresh one then.
 * The error itself goes to the browser's console as React logs every caught error (its root's
 * default `onCaughtError`).
 */
export class Boundary extends Component<
  { fallback: ReactNode; onRetry?: () => void; children: ReactNode },
  { failed: boolean }
> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidMount() {
    window.addEventListener('online', this.retry);
  }

  componentWillUnmount() {
    window.removeEventListener('online', this.retry);
  }

  retry = () => {
    if (!this.state.failed || !this.props.onRetry) return;
    this.props.onRetry();
    this.setState({ failed: false });
  };

  render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
