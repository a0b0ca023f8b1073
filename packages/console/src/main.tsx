import { render } from 'preact'
import 'uplot/dist/uPlot.min.css'
import { App } from './app.tsx'
// In cascade order: each sheet may override the ones before it.
import './styles/base.css'
import './styles/controls.css'
import './styles/frame.css'
import './styles/charts.css'
import './styles/dialogs.css'
import './styles/phone.css'

const root = document.getElementById('app')
if (root === null) throw new Error('index.html has no #app')
render(<App />, root)
