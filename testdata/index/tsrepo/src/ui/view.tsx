import { handlers } from '../api/handlers';

export function List(props: { ids: string[] }) {
  return (
    <ul>
      {props.ids.map((id) => (
        <Row key={id} onClick={() => handlers.show(id)} />
      ))}
    </ul>
  );
}

const Row = (p: { onClick: () => void }) => <li onClick={p.onClick} />;
