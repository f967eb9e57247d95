import { Loading } from '../../components/ui';

export function SocialCallback() {
  return <Loading label="Connecting your account" />;
}
