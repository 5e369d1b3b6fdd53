/** Hash routing (`#/keys`): every console page is served by the one index.html, no server fallback needed. */
import { useEffect, useState } from 'react';

export function currentRoute(): string {
  return window.location.hash.replace(/^#/, '') || '/overview';
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
