// The establishing controller: a definition whose names are accepted becomes `Established`,
// which is when its resources are served.
import { isApiError } from '../../apimachinery/errors.js';
import { isConditionTrue, setCondition } from '../../apis/apiextensions/index.js';
import { CRDController, type CRDControllerOptions } from './controller.js';

export class EstablishingController extends CRDController {
  constructor(opts: CRDControllerOptions) {
    super(opts, 'establishing', 'crdEstablishing');
    this.handle({ onAdd: (crd) => this.enqueue(crd), onUpdate: (_old, crd) => this.enqueue(crd) });
  }

  async sync(name: string): Promise<void> {
    const cached = this.informer.get('', name);
    if (!cached || !isConditionTrue(cached, 'NamesAccepted') || isConditionTrue(cached, 'Established')) return;
    const crd = structuredClone(cached);
    setCondition(crd, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    try {
      await this.updateStatus(crd);
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
