import { render } from 'preact'
import 'uplot/dist/uPlot.min.css'
import { App } from './app.tsx'
import './styles.css'

const root = document.getElementById('app')
if (root === null) throw new Error('index.html has no #app')
render(<App />, root)
