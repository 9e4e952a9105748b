import { render } from 'preact';
// uPlot's few rules ship with the app's CSS: a lazily loaded chunk's CSS would not be applied by itself.
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './components/App.js';
import { completeSignIn } from './session.js';

async function boot(): Promise<void> {
  const message = location.pathname.endsWith('/callback') ? await completeSignIn() : undefined;
  const root = document.getElementById('app');
  if (root) render(<App message={message} />, root);
}

void boot();
