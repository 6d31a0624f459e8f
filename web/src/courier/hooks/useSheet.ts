import { type KeyboardEvent, useEffect, useRef } from 'react';

/**
 * A form that takes the place of the route (deliver, failed attempt): the focus moves into it when it
 * opens, so a keyboard or screen-reader user starts at its heading, and Escape goes back like Back.
 */
export function useSheet(onClose: () => void) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onClose();
    }
  };
  return { heading, onKeyDown };
}
