import { render } from 'preact';
import './styles.css';
import { App } from './components/App.js';
import { completeSignIn } from './session.js';

async function boot(): Promise<void> {
  const message = location.pathname.endsWith('/callback') ? await completeSignIn() : undefined;
  const root = document.getElementById('app');
  if (root) render(<App message={message} />, root);
}

void boot();
