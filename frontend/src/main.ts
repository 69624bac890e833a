import { mount } from 'svelte'
import 'katex/dist/katex.min.css'
import './app.css'
import App from './App.svelte'
import { createBackend } from './lib/backend'

const app = mount(App, {
  target: document.getElementById('app')!,
  props: { backend: createBackend() },
})

export default app
