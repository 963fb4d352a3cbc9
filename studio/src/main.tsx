import { render } from "preact";
import "@fontsource/inter/latin-400.css";
import "@fontsource/inter/latin-600.css";
import "./styles.css";
import { App } from "./app.tsx";

render(<App />, document.getElementById("app")!);
